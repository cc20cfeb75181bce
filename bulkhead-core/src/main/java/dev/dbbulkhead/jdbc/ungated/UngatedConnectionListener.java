package dev.dbbulkhead.jdbc.ungated;

/**
 * Told by a pool's detector what it sees for the first time, so that each call site is reported once, however
 * often it borrows. Called on the borrowing thread before the connection is handed out or refused: keep it cheap,
 * and do not throw.
 */
public interface UngatedConnectionListener {

    /** Tells nobody. */
    UngatedConnectionListener NONE = new UngatedConnectionListener() {
    };

    /**
     * A call site borrowed outside every gate for the first time.
     *
     * @param pool        the pool
     * @param site        the call site
     * @param description what was seen and what to do ({@link DetectionSettings#describe})
     * @param refused     whether the borrow is refused
     */
    default void newCallSite(String pool, CallSite site, String description, boolean refused) {
    }

    /**
     * The pool keeps as many call sites as it may: further ones are counted together as other call sites.
     *
     * @param pool         the pool
     * @param maxCallSites the call sites it keeps
     */
    default void callSitesFull(String pool, int maxCallSites) {
    }
}
