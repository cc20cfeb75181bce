package dev.dbbulkhead.sample.reports;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** HTTP for reports. */
@RestController
class ReportController {

    private final ReportEntry reports;

    ReportController(ReportEntry reports) {
        this.reports = reports;
    }

    @GetMapping("/reports/sales")
    SalesReport sales(@RequestParam(defaultValue = "200") int heavyMillis) {
        return reports.sales(Math.clamp(heavyMillis, 0, 5_000));
    }
}
