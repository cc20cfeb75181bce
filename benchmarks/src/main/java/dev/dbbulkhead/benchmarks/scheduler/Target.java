package dev.dbbulkhead.benchmarks.scheduler;

/**
 * One target of the scheduler run and what the run made of it.
 *
 * @param target   the target, as the benchmark reference states it
 * @param measured what was measured, in words and numbers
 * @param state    met, not met, or not supported by the build measured (why, in {@code measured})
 */
public record Target(String target, String measured, State state) {

    public enum State {
        MET("**met**"), NOT_MET("**not met**"), NOT_SUPPORTED("not supported by this build");

        private final String label;

        State(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        static State of(boolean met) {
            return met ? MET : NOT_MET;
        }
    }
}
