package dev.dbbulkhead.testing.apifixture;

/** A deprecated type and annotation type. */
@Deprecated(since = "0.1", forRemoval = true)
public class Legacy {

    /** An annotation type: its elements are its members. */
    public @interface Marker {

        String value() default "";
    }
}
