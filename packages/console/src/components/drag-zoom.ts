import { useRef, useState, type PointerEvent as ReactPointerEvent } from 'react';
import { dragWindow, MIN_DRAG_PX } from '../lib/scale';

/** What a chart needs to let a drag across its plot choose a time window: handlers for its <svg>, and the band. */
export interface DragZoom {
  /** The band being dragged, in the svg's own x units; undefined when no drag is on. */
  band: { x: number; width: number } | undefined;
  /** Whether the click that follows a release ended a drag (then it is not a click on what lies under it). */
  dragged(): boolean;
  handlers: {
    onPointerDown(e: ReactPointerEvent<SVGSVGElement>): void;
    onPointerMove(e: ReactPointerEvent<SVGSVGElement>): void;
    onPointerUp(e: ReactPointerEvent<SVGSVGElement>): void;
    onPointerCancel(): void;
  } | Record<string, never>;
}

/**
 * Drag-to-zoom on a chart whose x axis is time: press inside the plot [left, right] (svg units of a viewBox
 * `width` wide), drag, release, and `onZoom` gets the window between (epoch ms, `at` maps x to time). A press
 * that moves less than a few pixels stays a click (a dot's link still opens). Without `onZoom`, nothing.
 */
export function useDragZoom(width: number, left: number, right: number, at: (x: number) => number, onZoom?: (from: number, to: number) => void): DragZoom {
  const start = useRef<number | undefined>(undefined);
  const zoomed = useRef(false);
  const [band, setBand] = useState<{ x: number; width: number }>();
  if (!onZoom) return { band: undefined, handlers: {}, dragged: () => false };
  const svgX = (e: ReactPointerEvent<SVGSVGElement>) => {
    const rect = e.currentTarget.getBoundingClientRect();
    return rect.width ? ((e.clientX - rect.left) * width) / rect.width : 0;
  };
  const clamp = (x: number) => Math.min(Math.max(x, left), right);
  return {
    band,
    dragged: () => zoomed.current,
    handlers: {
      onPointerDown(e) {
        if (e.button !== 0) return;
        const x = svgX(e);
        zoomed.current = false;
        if (x < left || x > right) return;
        start.current = x;
      },
      onPointerMove(e) {
        if (start.current === undefined) return;
        // Released outside before a drag began (no capture yet, so no pointerup here): not a drag any more.
        if (e.buttons === 0) {
          start.current = undefined;
          setBand(undefined);
          return;
        }
        const x = clamp(svgX(e));
        if (Math.abs(x - start.current) < MIN_DRAG_PX) return;
        if (!band) e.currentTarget.setPointerCapture?.(e.pointerId);
        setBand({ x: Math.min(start.current, x), width: Math.abs(x - start.current) });
      },
      onPointerUp(e) {
        const x0 = start.current;
        start.current = undefined;
        setBand(undefined);
        if (x0 === undefined) return;
        const picked = dragWindow(x0, svgX(e), left, right, at);
        zoomed.current = picked !== undefined;
        if (picked) onZoom(picked.from, picked.to);
      },
      onPointerCancel() {
        start.current = undefined;
        setBand(undefined);
      },
    },
  };
}
