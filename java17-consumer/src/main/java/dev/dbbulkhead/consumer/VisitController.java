package dev.dbbulkhead.consumer;

import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** HTTP for visits; a full {@code visits} gate answers 503 through the starter's own mapping. */
@RestController
class VisitController {

    private final VisitCounter visits;

    VisitController(VisitCounter visits) {
        this.visits = visits;
    }

    @PostMapping("/pages/{page}/visits")
    long visit(@PathVariable String page) {
        return visits.visit(page);
    }
}
