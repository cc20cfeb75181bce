package dev.dbbulkhead.test.slice;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/** A loader nobody gated: it queries on a connection of its own, outside every gate. */
@Component
public class OwnerLoader {

    private final JdbcTemplate jdbc;

    OwnerLoader(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    public String ownerName() {
        return jdbc.queryForObject("SELECT 'ada'", String.class);
    }
}
