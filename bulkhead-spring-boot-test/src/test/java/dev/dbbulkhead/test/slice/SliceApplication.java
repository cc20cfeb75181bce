package dev.dbbulkhead.test.slice;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The application the slice tests of this package find, as a slice finds an application's. */
@SpringBootApplication
public class SliceApplication {
}
