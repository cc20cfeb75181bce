package dev.dbbulkhead.jdbc.ungated;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** What a detector told its listener, kept for the test to read. */
final class RecordedSightings implements UngatedConnectionListener {

    final List<CallSite> newSites = new CopyOnWriteArrayList<>();
    final List<String> descriptions = new CopyOnWriteArrayList<>();
    final AtomicInteger full = new AtomicInteger();

    @Override
    public void newCallSite(String pool, CallSite site, String description, boolean refused) {
        newSites.add(site);
        descriptions.add(description);
    }

    @Override
    public void callSitesFull(String pool, int maxCallSites) {
        full.incrementAndGet();
    }
}
