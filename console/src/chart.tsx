import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface Series {
  label: string;
  values: number[];
  /** A CSS custom property of the theme (`--chart-1`). */
  color: string;
}

/**
 * A time series chart (uPlot) over `times` (ISO strings), sized to its box and redrawn when
 * the box or the theme changes. The numbers are also in the table beside it.
 */
export function TimeChart({ times, series, label }: { times: string[]; series: Series[]; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let plot: uPlot | null = null;
    const draw = () => {
      plot?.destroy();
      const style = getComputedStyle(el);
      const ink = style.getPropertyValue('--muted').trim() || '#666';
      const grid = style.getPropertyValue('--line').trim() || '#ddd';
      const axis = { stroke: ink, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
      plot = new uPlot(
        {
          width: Math.max(260, el.clientWidth),
          height: 220,
          legend: { show: true },
          cursor: { drag: { x: false, y: false } },
          scales: { x: { time: true } },
          axes: [axis, { ...axis, size: 44 }],
          series: [{}, ...series.map((s) => ({ label: s.label, stroke: style.getPropertyValue(s.color).trim() || '#36c', width: 2, points: { show: times.length < 40 } }))],
        },
        [times.map((t) => Date.parse(t) / 1000), ...series.map((s) => s.values)],
        el,
      );
    };
    draw();
    const resize = new ResizeObserver(() => plot?.setSize({ width: Math.max(260, el.clientWidth), height: 220 }));
    resize.observe(el);
    const scheme = matchMedia('(prefers-color-scheme: dark)');
    scheme.addEventListener('change', draw);
    return () => {
      resize.disconnect();
      scheme.removeEventListener('change', draw);
      plot?.destroy();
    };
  }, [times, series]);
  return <div class="chart" ref={box} role="img" aria-label={label} />;
}
