import { describe, expect, it } from 'vitest';
import { basisPath, clipEnd, clipStart, contains, exitPoint, pointAlong } from '../../src/report/geometry.js';

const box = { x: 0, y: 0, width: 10, height: 10 };

describe('geometry', () => {
  it('contains includes the border', () => {
    expect(contains(box, { x: 10, y: 10 })).toBe(true);
    expect(contains(box, { x: 10.1, y: 5 })).toBe(false);
  });

  it('exitPoint finds where a segment leaves a box, on any side', () => {
    expect(exitPoint(box, { x: 5, y: 5 }, { x: 5, y: 25 })).toEqual({ x: 5, y: 10 });
    expect(exitPoint(box, { x: 5, y: 5 }, { x: -5, y: 5 })).toEqual({ x: 0, y: 5 });
    expect(exitPoint(box, { x: 5, y: 5 }, { x: 25, y: 25 })).toEqual({ x: 10, y: 10 });
  });

  it('clipStart cuts a line that starts inside a box at the border', () => {
    expect(clipStart([{ x: 2, y: 2 }, { x: 5, y: 5 }, { x: 5, y: 20 }, { x: 9, y: 30 }], box)).toEqual([{ x: 5, y: 10 }, { x: 5, y: 20 }, { x: 9, y: 30 }]);
  });

  it('clipEnd cuts a line that ends inside a box at the border', () => {
    expect(clipEnd([{ x: 5, y: 30 }, { x: 5, y: 20 }, { x: 5, y: 5 }], box)).toEqual([{ x: 5, y: 30 }, { x: 5, y: 20 }, { x: 5, y: 10 }]);
  });

  it('leaves a line alone that starts outside, or never leaves', () => {
    const outside = [{ x: 20, y: 20 }, { x: 30, y: 30 }];
    expect(clipStart(outside, box)).toEqual(outside);
    const inside = [{ x: 1, y: 1 }, { x: 2, y: 2 }];
    expect(clipStart(inside, box)).toEqual(inside);
  });

  it('pointAlong walks a polyline by length', () => {
    const line = [{ x: 0, y: 0 }, { x: 10, y: 0 }, { x: 10, y: 10 }];
    expect(pointAlong(line, 0.5)).toEqual({ x: 10, y: 0 });
    expect(pointAlong(line, 0.25)).toEqual({ x: 5, y: 0 });
    expect(pointAlong(line, 1)).toEqual({ x: 10, y: 10 });
    expect(pointAlong([{ x: 3, y: 4 }], 0.5)).toEqual({ x: 3, y: 4 });
  });

  it('basisPath starts at the first point and ends at the last', () => {
    expect(basisPath([])).toBe('');
    expect(basisPath([{ x: 0, y: 0 }, { x: 10, y: 0 }])).toBe('M0,0L10,0');
    const path = basisPath([{ x: 0, y: 0 }, { x: 10, y: 10 }, { x: 20, y: 0 }, { x: 30, y: 10 }]);
    expect(path).toMatch(/^M0,0L1\.7,1\.7C/);
    expect(path).toMatch(/L30,10$/);
    expect(path.match(/C/g)).toHaveLength(3);
  });
});
