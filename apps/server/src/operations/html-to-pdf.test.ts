import { describe, expect, it } from 'vitest';
import { checkAssets, parseMarginMm, parseSelector } from './html-to-pdf.js';

const asset = (name: string) => ({ path: `/tmp/${name}`, name, size: 1 });

describe('checkAssets', () => {
  it.each([
    ['nested paths', ['css/site.css', 'img/logo one.png', 'fonts/Inter-Regular.woff2', 'café.png']],
    ['no asset', []],
  ])('takes %s', (_, names) => {
    expect(() => checkAssets(1, names.map(asset))).not.toThrow();
  });

  it.each([
    ['no page', 0, [], /exactly one page in the part `html`; got 0/],
    ['two pages', 2, [], /got 2/],
    ['a climb out', 1, ['../etc/passwd'], /Asset 1 is named "..\/etc\/passwd"/],
    ['an absolute path', 1, ['/etc/passwd'], /Asset 1 is named "\/etc\/passwd"/],
    ['a dot segment', 1, ['css/./a.css'], /Asset 1/],
    ['an empty segment', 1, ['css//a.css'], /Asset 1/],
    ['a backslash', 1, ['css\\a.css'], /Asset 1/],
    ['a URL', 1, ['https://example.com/a.css'], /Asset 1/],
    ['the page itself', 1, ['index.html'], /the name the page itself is served under/],
    ['a name twice', 1, ['a.css', 'a.css'], /Asset 2 is named "a.css", as an asset before it/],
    ['51 assets', 1, Array.from({ length: 51 }, (_, i) => `a${i}.css`), /at most 50 files/],
  ])('refuses %s', (_, pages, names, message) => {
    expect(() => checkAssets(pages, names.map(asset))).toThrow(message);
  });
});

describe('parseMarginMm', () => {
  it.each([
    [undefined, 10],
    ['0', 0],
    ['12.5', 12.5],
    ['50', 50],
  ])('reads %s as %s', (raw, want) => {
    expect(parseMarginMm(raw)).toBe(want);
  });

  it.each(['-1', '51', 'ten', ' '])('refuses %j', (raw) => {
    expect(() => parseMarginMm(raw)).toThrow(/`margin_mm` must be a number of millimetres from 0 to 50/);
  });
});

describe('parseSelector', () => {
  it('keeps a selector, trimmed, and reads blank as none', () => {
    expect(parseSelector(' #ready ')).toBe('#ready');
    expect(parseSelector('  ')).toBeUndefined();
    expect(() => parseSelector('a'.repeat(1025))).toThrow(/at most 1024 characters/);
  });
});
