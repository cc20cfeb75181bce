package dev.dbbulkhead.consumer;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An application on Java 17, Spring Boot 4's baseline, with one workload: {@code visits} (B = 1, no queue), so
 * that a second concurrent call is refused. Platform threads only: virtual threads need Java 21.
 */
@SpringBootApplication
public class ConsumerApplication {

    public static void main(String[] args) {
        SpringApplication.run(ConsumerApplication.class, args);
    }
}
