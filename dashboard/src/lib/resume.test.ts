import { describe, expect, it } from 'vitest';

import type { KillFlag } from '../api/types';
import { KEYS } from '../test/fixtures';
import { resumeRequest, scopeLabel, sessionResumeRequest } from './resume';

const base: KillFlag = {
  scope: 'organization',
  keyId: null,
  sessionId: null,
  state: 'SUSPENDED',
  triggerType: 'token_loop_identical',
  observedValue: 4,
  thresholdValue: 4,
  mode: 'hard_stop',
  setAt: '2026-11-22T12:40:00.000Z',
  expiresAt: '2026-11-22T14:40:00.000Z',
  keysFlagged: 1,
};

describe('resumeRequest', () => {
  it('clears exactly a session flag, proving ownership with its own key prefix', () => {
    const flag: KillFlag = { ...base, scope: 'session', keyId: 'k3v9x0q2m7za', sessionId: 'agent-7' };
    expect(resumeRequest(flag, [])).toEqual({
      apiKey: 'abn_k3v9x0q2m7za',
      action: 'ACTIVE',
      scope: 'session',
      keyId: 'k3v9x0q2m7za',
      sessionId: 'agent-7',
    });
    expect(scopeLabel(flag)).toBe('Session agent-7 of key k3v9x0q2m7za');
  });

  it('clears a key flag with its key', () => {
    const flag: KillFlag = { ...base, scope: 'key', keyId: 'zr41ldv0p8qe', sessionId: null };
    expect(resumeRequest(flag, [])).toEqual({
      apiKey: 'abn_zr41ldv0p8qe',
      action: 'ACTIVE',
      scope: 'key',
      keyId: 'zr41ldv0p8qe',
    });
  });

  it('clears an organization flag with an active key, else any key', () => {
    const keys = [KEYS[1]!, KEYS[0]!];
    expect(resumeRequest(base, keys)).toEqual({
      apiKey: 'abn_k3v9x0q2m7za',
      action: 'ACTIVE',
      scope: 'organization',
    });
    expect(resumeRequest(base, [KEYS[1]!])).toEqual({
      apiKey: 'abn_zr41ldv0p8qe',
      action: 'ACTIVE',
      scope: 'organization',
    });
    expect(scopeLabel(base)).toBe('Whole organization');
    expect(() => resumeRequest(base, [])).toThrow(/no API key/);
  });

  it('sessionResumeRequest names the session and its key', () => {
    expect(sessionResumeRequest({ keyId: 'k3v9x0q2m7za', sessionId: 's1' })).toMatchObject({
      scope: 'session',
      sessionId: 's1',
      apiKey: 'abn_k3v9x0q2m7za',
    });
  });
});
