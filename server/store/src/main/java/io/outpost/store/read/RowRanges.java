package io.outpost.store.read;

import java.util.Arrays;

/**
 * The rows an answer selects from a held layer, as ranges [first, end) of row indices in the answer's order:
 * consecutive rows join one range, so an answer copies one slice of encoded bytes per range. Used by the native and
 * the Frontier answers from held rows, and compared as a whole to tell whether a kept answer has the same rows.
 */
public final class RowRanges {
    private int[] bounds = new int[16];
    private int n;

    /** Adds the next selected row. */
    public void add(int row) {
        if (n > 0 && bounds[n - 1] == row) {
            bounds[n - 1] = row + 1;
            return;
        }
        if (n + 2 > bounds.length) {
            bounds = Arrays.copyOf(bounds, bounds.length * 2);
        }
        bounds[n++] = row;
        bounds[n++] = row + 1;
    }

    /** first0, end0, first1, end1, … */
    public int[] toArray() {
        return Arrays.copyOf(bounds, n);
    }
}
