import sharp from 'sharp';

/** Pixels darker than this are ink. */
const INK = 128;
/** Ink is sampled on a grid this many cells along the page's long side: enough for lines of 8-point text on A4. */
const GRID = 900;
/** At most this many ink samples are projected per angle. */
const MAX_SAMPLES = 30_000;
/** Skew is looked for up to this many degrees either way, in coarse steps, then refined around the best. */
const MAX_SKEW = 10;
const COARSE_STEP = 0.5;
const FINE_STEP = 0.1;
/** Below this skew a page is left as it is: tesseract levels a line tilted this little itself, and turning a photo blurs its thin print. */
export const MIN_SKEW = 1.5;

/** Ink positions on a coarse grid, as [x, y] pairs in grid cells. */
function inkSamples(gray: Buffer, width: number, height: number): Float32Array {
  const step = Math.max(1, Math.ceil(Math.max(width, height) / GRID));
  const points: number[] = [];
  for (let y = 0; y < height; y += step) {
    const row = y * width;
    for (let x = 0; x < width; x += step) if (gray[row + x]! < INK) points.push(x / step, y / step);
  }
  if (points.length / 2 <= MAX_SAMPLES) return Float32Array.from(points);
  // Evenly thinned, so that every part of the page keeps its share.
  const keep = new Float32Array(MAX_SAMPLES * 2);
  const stride = points.length / 2 / MAX_SAMPLES;
  for (let i = 0; i < MAX_SAMPLES; i += 1) {
    const k = Math.floor(i * stride) * 2;
    keep[i * 2] = points[k]!;
    keep[i * 2 + 1] = points[k + 1]!;
  }
  return keep;
}

/**
 * How sharply the ink gathers into rows when projected across the page at `degrees`: the sum of
 * the squared counts per projected row. Level text lines make tall narrow peaks; tilted ones
 * spread over more rows and the sum falls.
 */
function sharpness(points: Float32Array, degrees: number): number {
  const a = (degrees * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  // Projections of grid points stay within ±2 GRID whatever the angle.
  const bins = new Int32Array(4 * GRID + 1);
  for (let i = 0; i < points.length; i += 2) bins[Math.round(points[i + 1]! * cos - points[i]! * sin) + 2 * GRID]! += 1;
  let sum = 0;
  for (const n of bins) sum += n * n;
  return sum;
}

/**
 * Degrees a page's text lines slope down to the right (negative: up), from the projection
 * profile of its ink: the angle at which the rows of ink are sharpest. 0 for a page with
 * too little ink to tell.
 */
export function skewOf(gray: Buffer, width: number, height: number): number {
  const points = inkSamples(gray, width, height);
  if (points.length < 400) return 0;
  let best = { angle: 0, score: sharpness(points, 0) };
  const consider = (angle: number) => {
    const score = sharpness(points, angle);
    if (score > best.score) best = { angle, score };
  };
  for (let angle = -MAX_SKEW; angle <= MAX_SKEW; angle += COARSE_STEP) if (angle !== 0) consider(angle);
  const coarse = best.angle;
  for (let angle = coarse - COARSE_STEP; angle <= coarse + COARSE_STEP; angle += FINE_STEP) consider(Math.round(angle * 10) / 10);
  return best.angle;
}

export interface Turned {
  gray: Buffer;
  width: number;
  height: number;
}

/** A grayscale page turned `degrees` clockwise, the corners it uncovers white. */
export async function turn(gray: Buffer, width: number, height: number, degrees: number): Promise<Turned> {
  const { data, info } = await sharp(gray, { raw: { width, height, channels: 1 } })
    .rotate(degrees, { background: { r: 255, g: 255, b: 255 } })
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { gray: data, width: info.width, height: info.height };
}
