package dev.dbbulkhead.testing.apifixture;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/** A public class with members of every visibility: only the public and protected ones are API. */
public class Widget {

    public static final int LIMIT = 10;
    public String label;
    protected long count;
    int packageCount;
    private int privateCount;

    public Widget() {
    }

    protected Widget(String label) {
        this.label = label;
    }

    Widget(int packageCount) {
        this.packageCount = packageCount;
    }

    private Widget(long count) {
        this.count = count;
    }

    public String label() {
        return label;
    }

    protected void touch() {
        privateCount++;
    }

    void packageTouch() {
    }

    private void privateTouch() {
        Runnable lambda = () -> privateCount++;
        lambda.run();
    }

    public static <T extends Comparable<? super T>> T max(Collection<? extends T> values) {
        return values.iterator().next();
    }

    public Map<String, List<Integer>> counts(String... names) {
        return Map.of();
    }

    public void load(Path file) throws IOException, InterruptedException {
    }

    @Deprecated
    public final void reset() {
    }
}
