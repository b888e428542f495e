import type { RgbaImage } from './decode-png.js';

/**
 * Counts the solid squares of `size` pixels in an image on a white page: 4-connected regions of
 * non-white pixels whose bounding box is exactly `size` square and which fill at least 90% of
 * it. Text, wider swatches and lines do not qualify, so on the pool map page this is the number
 * of block cells drawn.
 */
export function countCells(image: RgbaImage, size: number): number {
  const { width, height, data } = image;
  const ink = new Uint8Array(width * height);
  for (let i = 0; i < width * height; i++) {
    ink[i] = Math.min(data[i * 4]!, data[i * 4 + 1]!, data[i * 4 + 2]!) < 240 ? 1 : 0;
  }
  const seen = new Uint8Array(width * height);
  const stack: number[] = [];
  let cells = 0;
  for (let start = 0; start < ink.length; start++) {
    if (!ink[start] || seen[start]) continue;
    let [minX, maxX, minY, maxY, area] = [width, -1, height, -1, 0];
    seen[start] = 1;
    stack.push(start);
    while (stack.length > 0) {
      const p = stack.pop()!;
      const x = p % width;
      const y = (p - x) / width;
      area++;
      minX = Math.min(minX, x);
      maxX = Math.max(maxX, x);
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
      const next = [x > 0 ? p - 1 : -1, x < width - 1 ? p + 1 : -1, p - width, p + width];
      for (const q of next) {
        if (q >= 0 && q < ink.length && ink[q] && !seen[q]) {
          seen[q] = 1;
          stack.push(q);
        }
      }
    }
    const w = maxX - minX + 1;
    const h = maxY - minY + 1;
    if (w === size && h === size && area >= 0.9 * size * size) cells++;
  }
  return cells;
}
