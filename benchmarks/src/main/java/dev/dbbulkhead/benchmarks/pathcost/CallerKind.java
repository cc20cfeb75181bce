package dev.dbbulkhead.benchmarks.pathcost;

/**
 * The thread a caller of the load harness runs on. Platform threads are what a servlet container's pool gives;
 * virtual threads are how an application reaches hundreds of concurrent callers, each parked cheaply while it waits.
 */
enum CallerKind {

    PLATFORM {
        @Override
        Thread start(String name, Runnable work) {
            return Thread.ofPlatform().name(name).start(work);
        }
    },
    VIRTUAL {
        @Override
        Thread start(String name, Runnable work) {
            return Thread.ofVirtual().name(name).start(work);
        }
    };

    /** Starts {@code work} on a new thread of this kind. */
    abstract Thread start(String name, Runnable work);
}
