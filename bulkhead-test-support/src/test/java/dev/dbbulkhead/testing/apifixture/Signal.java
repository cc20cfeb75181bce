package dev.dbbulkhead.testing.apifixture;

/** An enum: its constants, one with a body, and its methods, not the implicit values() and valueOf(String). */
public enum Signal implements Runnable {
    GREEN,
    AMBER {
        @Override
        public boolean stops() {
            return true;
        }
    },
    RED;

    public boolean stops() {
        return this == RED;
    }

    @Override
    public void run() {
    }
}
