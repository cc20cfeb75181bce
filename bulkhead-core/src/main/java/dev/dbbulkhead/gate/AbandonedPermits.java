package dev.dbbulkhead.gate;

import java.util.Iterator;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * One gate's permits that a thread other than their owner tried to close while the owner was alive. Each holds a
 * place until it is given back: by its owner (closing it, or entering a bulkhead again), or here, once the owner
 * thread has ended and so can neither close it nor be running work under it any more.
 *
 * <p>Looked at only off the fast path: when such a permit is added, and when an admission finds no room. Holds at
 * most the B + Q permits that can be unreleased at once, plus those released since it was last looked at.
 */
final class AbandonedPermits {

    private final Queue<Permit> permits = new ConcurrentLinkedQueue<>();

    /** Adds {@code permit}, and gives it back at once if its owner has already ended. */
    void add(Permit permit) {
        permits.add(permit);
        giveBackPlacesOfEndedOwners();
    }

    /**
     * Gives back the places of the permits whose owner thread has ended, and forgets the permits given back.
     *
     * @return whether a place was given back by this call
     */
    boolean giveBackPlacesOfEndedOwners() {
        if (permits.isEmpty()) {
            return false;
        }
        boolean gaveBack = false;
        for (Iterator<Permit> it = permits.iterator(); it.hasNext(); ) {
            Permit permit = it.next();
            gaveBack |= permit.giveBackForEndedOwner();
            if (permit.isReleased()) {
                it.remove();
            }
        }
        return gaveBack;
    }
}
