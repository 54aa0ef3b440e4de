/** ANSI colors, or none (not a terminal, NO_COLOR). */
export type Palette = Record<"green" | "yellow" | "red" | "bold" | "dim", (s: string) => string>;

const wrap = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;

export const COLORS: Palette = { green: wrap(32, 39), yellow: wrap(33, 39), red: wrap(31, 39), bold: wrap(1, 22), dim: wrap(2, 22) };

const same = (s: string) => s;
export const NO_COLORS: Palette = { green: same, yellow: same, red: same, bold: same, dim: same };

export const paletteFor = (color: boolean): Palette => (color ? COLORS : NO_COLORS);
