package dev.dbbulkhead;

import java.util.Locale;

/** How an admitted operation ended, as far as its transaction is concerned. */
public enum ExecutionOutcome {

    /** The commit succeeded. */
    COMMITTED,

    /** The transaction was rolled back: the work failed, it was marked rollback-only, or the database refused the commit. */
    ROLLED_BACK,

    /** No transaction ran: no connection could be had, or setting the transaction up failed. */
    FAILED,

    /** The commit was attempted and failed without a verdict (connection lost): the write may have happened. */
    UNKNOWN;

    private final String tag = name().toLowerCase(Locale.ROOT);

    /** The lower-case name used as metric tag value ({@code committed}, {@code rolled_back}, …). */
    public String tagValue() {
        return tag;
    }
}
