package dev.dbbulkhead.consumer;

import dev.dbbulkhead.annotation.DbBulkhead;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;

/** Counts visits of a page: one admitted transaction per visit. */
@Service
public class VisitCounter {

    private final JdbcTemplate jdbc;

    VisitCounter(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** Records a visit of {@code page} and returns how many it has had. */
    @DbBulkhead("visits")
    public long visit(String page) {
        jdbc.update("INSERT INTO visit (page) VALUES (?)", page);
        Long visits = jdbc.queryForObject("SELECT count(*) FROM visit WHERE page = ?", Long.class, page);
        return visits == null ? 0 : visits;
    }
}
