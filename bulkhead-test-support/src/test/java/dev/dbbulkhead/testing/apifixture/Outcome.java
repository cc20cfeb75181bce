package dev.dbbulkhead.testing.apifixture;

/** A sealed interface, its permitted records and a non-sealed subclass. */
public sealed interface Outcome permits Outcome.Done, Outcome.Failed, Outcome.Open {

    record Done(String value) implements Outcome {
    }

    record Failed(Exception cause) implements Outcome {
    }

    non-sealed class Open implements Outcome {
    }
}
