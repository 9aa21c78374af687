import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactElement } from 'react';

import { createApiClient } from '../api/client';
import { ApiProvider } from '../api/context';
import { API_URL } from './mockApi';

export const TEST_TOKEN =
  'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEiLCJjdXN0b206b3JnSWQiOiJvcmdfZGVtbyJ9.c2ln';

/** Renders a page with an API client pointed at the fake API and a user-event session. */
export function renderWithApi(ui: ReactElement) {
  const client = createApiClient({ apiUrl: API_URL, getToken: () => TEST_TOKEN });
  const user = userEvent.setup();
  return { user, client, ...render(<ApiProvider client={client}>{ui}</ApiProvider>) };
}
