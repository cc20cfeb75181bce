package dev.dbbulkhead.testing.apifixture;

/** Package-private: neither it nor its public nested class can be named outside the package. */
class Hidden {

    public void shown() {
    }

    public static class Nested {

        public void alsoHidden() {
        }
    }
}
