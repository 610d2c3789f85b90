import { describe, expect, it } from 'vitest';
import { encodePgm, eraseRules, pixelsOf, thickenStrokes } from '../../src/extraction/image.js';

const WIDTH = 600;
const HEIGHT = 200;

function page(): Buffer {
  return Buffer.alloc(WIDTH * HEIGHT, 255);
}

function paint(gray: Buffer, x0: number, y0: number, x1: number, y1: number, shade = 0): void {
  for (let y = y0; y <= y1; y += 1) gray.fill(shade, y * WIDTH + x0, y * WIDTH + x1 + 1);
}

describe('eraseRules', () => {
  it('whitens thin rules and the frame sides that meet them, keeps strokes, short dashes and filled bars', () => {
    const gray = page();
    const kept = page();
    paint(gray, 50, 10, 549, 10);
    paint(gray, 100, 50, 300, 50);
    paint(gray, 100, 90, 300, 90);
    paint(gray, 100, 50, 100, 90);
    paint(gray, 300, 50, 301, 90);
    for (const target of [gray, kept]) {
      paint(target, 200, 60, 201, 80);
      paint(target, 50, 120, 500, 160);
      paint(target, 50, 180, 60, 180);
    }
    eraseRules(gray, WIDTH, HEIGHT);
    expect(gray.equals(kept)).toBe(true);
  });

  it('keeps a tall stroke that crosses no rule, however thin', () => {
    const gray = page();
    paint(gray, 10, 20, 10, 180);
    const before = Buffer.from(gray);
    eraseRules(gray, WIDTH, HEIGHT);
    expect(gray.equals(before)).toBe(true);
  });

  it('keeps white text on a dark bar, whose rows are long runs but not thin ones', () => {
    const gray = page();
    paint(gray, 20, 40, 580, 80);
    paint(gray, 100, 42, 103, 78, 255);
    paint(gray, 100, 58, 140, 61, 255);
    const before = Buffer.from(gray);
    eraseRules(gray, WIDTH, HEIGHT);
    expect(gray.equals(before)).toBe(true);
  });

  it('whitens every rule of a full 300-dpi page', () => {
    const [width, height] = [2480, 3508];
    const gray = Buffer.alloc(width * height, 255);
    for (let y = 100; y < height; y += 60) gray.fill(0, y * width + 100, y * width + 2300);
    eraseRules(gray, width, height);
    expect(gray.every((v) => v === 255)).toBe(true);
  });
});

describe('thickenStrokes', () => {
  it('makes each pixel the darkest of its 3 x 3 neighbourhood, up to the page edges, keeping the page turn', () => {
    const gray = page();
    gray[50 * WIDTH + 100] = 0;
    gray[0] = 40;
    gray[HEIGHT * WIDTH - 1] = 90;
    const thick = thickenStrokes(encodePgm(gray, WIDTH, HEIGHT, 180));
    const expected = page();
    paint(expected, 99, 49, 101, 51);
    paint(expected, 0, 0, 1, 1, 40);
    paint(expected, WIDTH - 2, HEIGHT - 2, WIDTH - 1, HEIGHT - 1, 90);
    expect(pixelsOf(thick).equals(expected)).toBe(true);
    expect(thick).toMatchObject({ width: WIDTH, height: HEIGHT, rotation: 180 });
  });

  it('joins dots a pixel apart into a stroke', () => {
    const gray = page();
    for (let x = 100; x <= 140; x += 2) gray[60 * WIDTH + x] = 0;
    const row = pixelsOf(thickenStrokes(encodePgm(gray, WIDTH, HEIGHT))).subarray(60 * WIDTH + 99, 60 * WIDTH + 142);
    expect(row.every((v) => v === 0)).toBe(true);
  });
});
