/** A point in diagram coordinates (pixels, y down). */
export interface Point {
  x: number;
  y: number;
}

/** An axis-aligned rectangle by its top-left corner and size. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export function contains(box: Box, point: Point): boolean {
  return point.x >= box.x && point.x <= box.x + box.width && point.y >= box.y && point.y <= box.y + box.height;
}

/**
 * Whether two boxes share more than a border.
 *
 * @example
 * overlaps({ x: 0, y: 0, width: 10, height: 10 }, { x: 5, y: 5, width: 10, height: 10 }) // true
 */
export function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** Where the segment from `inside` to `outside` crosses the border of `box`. */
export function exitPoint(box: Box, inside: Point, outside: Point): Point {
  const dx = outside.x - inside.x;
  const dy = outside.y - inside.y;
  let t = 1;
  if (dx > 0) t = Math.min(t, (box.x + box.width - inside.x) / dx);
  if (dx < 0) t = Math.min(t, (box.x - inside.x) / dx);
  if (dy > 0) t = Math.min(t, (box.y + box.height - inside.y) / dy);
  if (dy < 0) t = Math.min(t, (box.y - inside.y) / dy);
  t = Math.max(0, t);
  return { x: inside.x + dx * t, y: inside.y + dy * t };
}

/**
 * A polyline that starts inside `box`, cut so that it starts where it leaves
 * the box. A line that never leaves the box is returned unchanged.
 *
 * @example
 * clipStart([{ x: 5, y: 5 }, { x: 5, y: 20 }], { x: 0, y: 0, width: 10, height: 10 }) // [{ x: 5, y: 10 }, { x: 5, y: 20 }]
 */
export function clipStart(points: readonly Point[], box: Box): Point[] {
  const firstOutside = points.findIndex((point) => !contains(box, point));
  if (firstOutside <= 0) return [...points];
  return [exitPoint(box, points[firstOutside - 1]!, points[firstOutside]!), ...points.slice(firstOutside)];
}

/**
 * A polyline that ends inside `box`, cut so that it ends where it enters the box.
 *
 * @example
 * clipEnd([{ x: 5, y: 20 }, { x: 5, y: 5 }], { x: 0, y: 0, width: 10, height: 10 }) // [{ x: 5, y: 20 }, { x: 5, y: 10 }]
 */
export function clipEnd(points: readonly Point[], box: Box): Point[] {
  return clipStart([...points].reverse(), box).reverse();
}

/**
 * The point at `fraction` (0 to 1) of a polyline's length.
 *
 * @example
 * pointAlong([{ x: 0, y: 0 }, { x: 10, y: 0 }, { x: 10, y: 10 }], 0.5) // { x: 10, y: 0 }
 */
export function pointAlong(points: readonly Point[], fraction: number): Point {
  const lengths = points.slice(1).map((point, index) => Math.hypot(point.x - points[index]!.x, point.y - points[index]!.y));
  let remaining = lengths.reduce((sum, length) => sum + length, 0) * Math.min(Math.max(fraction, 0), 1);
  for (const [index, length] of lengths.entries()) {
    if (remaining <= length && length > 0) {
      const [from, to] = [points[index]!, points[index + 1]!];
      return { x: from.x + ((to.x - from.x) * remaining) / length, y: from.y + ((to.y - from.y) * remaining) / length };
    }
    remaining -= length;
  }
  return points.at(-1) ?? { x: 0, y: 0 };
}

const round = (value: number) => Math.round(value * 10) / 10;

/**
 * An SVG path through `points` as a uniform B-spline (d3's `curveBasis`, the
 * curve dagre's own renderers use): it starts at the first point, ends at the
 * last, and bends smoothly through the ones between.
 *
 * @example
 * basisPath([{ x: 0, y: 0 }, { x: 10, y: 0 }]) // 'M0,0L10,0'
 */
export function basisPath(points: readonly Point[]): string {
  const [first, second] = points;
  if (!first) return '';
  if (!second) return `M${round(first.x)},${round(first.y)}`;
  if (points.length === 2) return `M${round(first.x)},${round(first.y)}L${round(second.x)},${round(second.y)}`;
  const parts = [`M${round(first.x)},${round(first.y)}`];
  let [x0, y0, x1, y1] = [first.x, first.y, second.x, second.y];
  const bezierTo = (x: number, y: number) =>
    parts.push(
      `C${round((2 * x0 + x1) / 3)},${round((2 * y0 + y1) / 3)},${round((x0 + 2 * x1) / 3)},${round((y0 + 2 * y1) / 3)},${round((x0 + 4 * x1 + x) / 6)},${round((y0 + 4 * y1 + y) / 6)}`,
    );
  parts.push(`L${round((5 * x0 + x1) / 6)},${round((5 * y0 + y1) / 6)}`);
  for (const point of points.slice(2)) {
    bezierTo(point.x, point.y);
    [x0, y0, x1, y1] = [x1, y1, point.x, point.y];
  }
  bezierTo(x1, y1);
  parts.push(`L${round(x1)},${round(y1)}`);
  return parts.join('');
}
