package dev.dbbulkhead.autoconfigure.web.servlet;

import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.testing.Await;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;

/** Requests sent without waiting for their answers, to one workload whose gate tells when each of them waits. */
final class QueuedRequests {

    private final HttpClient http = HttpClient.newHttpClient();
    private final AdmissionGate gate;

    QueuedRequests(AdmissionGate gate) {
        this.gate = gate;
    }

    /** Sends {@code request}; its answer comes in its own time. */
    CompletableFuture<HttpResponse<String>> send(HttpRequest request) {
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }

    /** Sends {@code request} and returns once its operation waits in the gate. */
    CompletableFuture<HttpResponse<String>> queued(HttpRequest request) {
        int before = gate.queueLength();
        CompletableFuture<HttpResponse<String>> response = send(request);
        Await.until("the request queued", () -> gate.queueLength() == before + 1);
        return response;
    }
}
