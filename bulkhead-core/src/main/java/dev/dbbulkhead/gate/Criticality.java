package dev.dbbulkhead.gate;

/**
 * How much an operation matters when its workload cannot admit everyone: under contention the least critical is
 * refused first, and places held back for more critical work ({@link AdmissionRules}) are never given to it. A small
 * fixed set, after the criticalities of Google's SRE book, so that every service of a fleet means the same by them.
 */
public enum Criticality {

    /** Work whose failure users see at once (a checkout, a login): may take every place, the held-back ones too. */
    CRITICAL,

    /** Work without a criticality of its own: refused once only places held back for critical work are left. */
    DEFAULT,

    /** Work that can be dropped or done later (a prefetch, a report): the first refused under contention. */
    SHEDDABLE
}
