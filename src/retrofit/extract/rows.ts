/**
 * The bound on readings that turn a header and rows of cells into objects (`table`, `csv`): each cell repeats
 * its column's name in the JSON, so a text with long header names and short cells reads as many times its own
 * size (2,000 names of 500 characters over 350 rows of `x`: 2.4 MB of text, 357 MB of JSON, 1.2 GB of memory
 * on the way). Before any row is built, the reading's JSON is estimated, and a reading over ROWS_MAX_JSON
 * is a failed one.
 */

/** The most JSON (estimated, UTF-16 units) a reading of rows may come to: twice the largest text read. */
export const ROWS_MAX_JSON = 32 * 1024 * 1024;

/** `"name":"cell",` around each kept cell, `{}` around each row. */
const PER_CELL = 6;
const PER_ROW = 3;

/**
 * Why the rows are too large to read (their estimated JSON size), or undefined. A cell counts when its
 * column has a name and it has text (`length` reads a cell's text length; empty cells are not kept).
 */
export function rowsTooLarge<C>(names: readonly string[], body: readonly (readonly C[])[], length: (cell: C) => number): string | undefined {
  let total = 0;
  for (const cells of body) {
    total += PER_ROW;
    const width = Math.min(cells.length, names.length);
    for (let i = 0; i < width; i++) {
      const name = names[i]!;
      const n = length(cells[i]!);
      if (name !== '' && n > 0) total += name.length + n + PER_CELL;
    }
    if (total > ROWS_MAX_JSON) return `its rows would come to more than ${ROWS_MAX_JSON} characters of JSON (each cell repeats its column's name)`;
  }
  return undefined;
}
