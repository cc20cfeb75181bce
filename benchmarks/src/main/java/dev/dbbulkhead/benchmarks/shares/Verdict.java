package dev.dbbulkhead.benchmarks.shares;

/**
 * One target of the section and what the run made of it.
 *
 * @param target   the target, as docs/benchmarks/8-tenants-criticality-lending.md states it
 * @param measured what was measured, in words and numbers
 * @param state    met, not met, or not run (and why, in {@code measured})
 */
record Verdict(String target, String measured, State state) {

    enum State {
        MET("**met**"), NOT_MET("**not met**"), NOT_RUN("not run");

        private final String label;

        State(String label) {
            this.label = label;
        }

        String label() {
            return label;
        }

        static State of(boolean met) {
            return met ? MET : NOT_MET;
        }
    }
}
