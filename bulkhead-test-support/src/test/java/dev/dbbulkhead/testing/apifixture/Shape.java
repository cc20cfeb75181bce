package dev.dbbulkhead.testing.apifixture;

/** An interface: its abstract, default and static methods and its constant. */
public interface Shape extends Comparable<Shape> {

    double UNIT = 1.0;

    double area();

    default boolean isLargerThan(Shape other) {
        return area() > other.area();
    }

    static Shape unit() {
        return () -> UNIT;
    }

    @Override
    default int compareTo(Shape other) {
        return Double.compare(area(), other.area());
    }
}
