package dev.dbbulkhead.testing.apifixture;

import java.io.Serializable;

/** A record: its components show as their accessors; a static factory. */
public record Point(int x, int y) implements Serializable {

    public static Point origin() {
        return new Point(0, 0);
    }
}
