import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';

// findBy*/waitFor wait up to 5 s: chart pages render slowly in jsdom on a busy 2-core machine.
configure({ asyncUtilTimeout: 5000 });

// jsdom lays nothing out: recharts' ResponsiveContainer measures its parent with getBoundingClientRect
// and a ResizeObserver, so both report a fixed 800 × 300 box.
const BOX = { width: 800, height: 300 };

class FixedResizeObserver implements ResizeObserver {
  constructor(private readonly callback: ResizeObserverCallback) {}
  observe(target: Element): void {
    const entry = {
      target,
      contentRect: { ...BOX, x: 0, y: 0, top: 0, left: 0, right: BOX.width, bottom: BOX.height },
    };
    this.callback([entry as unknown as ResizeObserverEntry], this);
  }
  unobserve(): void {}
  disconnect(): void {}
}
vi.stubGlobal('ResizeObserver', FixedResizeObserver);

Element.prototype.getBoundingClientRect = function getBoundingClientRect(): DOMRect {
  return {
    ...BOX,
    x: 0,
    y: 0,
    top: 0,
    left: 0,
    right: BOX.width,
    bottom: BOX.height,
    toJSON: () => BOX,
  } as DOMRect;
};
for (const prop of ['offsetWidth', 'clientWidth'] as const) {
  Object.defineProperty(HTMLElement.prototype, prop, { configurable: true, get: () => BOX.width });
}
for (const prop of ['offsetHeight', 'clientHeight'] as const) {
  Object.defineProperty(HTMLElement.prototype, prop, { configurable: true, get: () => BOX.height });
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.stubGlobal('ResizeObserver', FixedResizeObserver);
  sessionStorage.clear();
  window.location.hash = '';
});
