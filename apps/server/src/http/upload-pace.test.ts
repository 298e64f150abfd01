import { afterEach, describe, expect, it, vi } from 'vitest';
import { bytesPerWindow, watchPace } from './upload-pace.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('bytesPerWindow', () => {
  it.each([
    ['the rate over the window', { minBytesPerSecond: 1024, windowMs: 20_000 }, 20 * 1024],
    ['rounded up', { minBytesPerSecond: 3, windowMs: 500 }, 2],
    ['at least one byte where the rate is 0', { minBytesPerSecond: 0, windowMs: 20_000 }, 1],
  ])('%s', (_name, pace, want) => {
    expect(bytesPerWindow(pace)).toBe(want);
  });
});

describe('watchPace', () => {
  const pace = { minBytesPerSecond: 100, windowMs: 1000 };
  /** A window ends, and its judgement (deferred to the check phase) runs. */
  const windowEnds = () => {
    vi.advanceTimersByTime(1000);
    vi.advanceTimersToNextTimer();
  };

  it('lets a body that brings enough in every window go on, and cuts one at the first short window', () => {
    vi.useFakeTimers();
    let received = 0;
    const tooSlow = vi.fn();
    const stop = watchPace(pace, () => received, tooSlow);
    received += 100;
    windowEnds();
    received += 150;
    windowEnds();
    expect(tooSlow).not.toHaveBeenCalled();
    received += 99;
    windowEnds();
    expect(tooSlow).toHaveBeenCalledExactlyOnceWith(99);
    vi.advanceTimersByTime(5000);
    expect(tooSlow).toHaveBeenCalledOnce();
    stop();
  });

  it('cuts a body that never starts', () => {
    vi.useFakeTimers();
    const tooSlow = vi.fn();
    watchPace({ minBytesPerSecond: 0, windowMs: 1000 }, () => 0, tooSlow);
    windowEnds();
    expect(tooSlow).toHaveBeenCalledExactlyOnceWith(0);
  });

  it('judges nothing once stopped', () => {
    vi.useFakeTimers();
    const tooSlow = vi.fn();
    watchPace(pace, () => 0, tooSlow)();
    vi.advanceTimersByTime(5000);
    expect(tooSlow).not.toHaveBeenCalled();
  });
});
