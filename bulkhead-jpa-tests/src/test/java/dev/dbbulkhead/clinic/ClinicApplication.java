package dev.dbbulkhead.clinic;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.cache.concurrent.ConcurrentMapCacheManager;
import org.springframework.context.annotation.Bean;

/**
 * An application shaped like Spring PetClinic — Spring Data JPA, controllers that call repositories directly,
 * {@code @ModelAttribute} loaders, a formatter that loads, a form that adds a visit, a cached vets list, a page
 * without database work — gated as docs/how-to/spring-mvc-applications.md advises: on the repositories. Its
 * configuration is {@code clinic/application.yml}, read instead of the module's (see {@link ClinicTest}).
 */
@SpringBootApplication
@EnableCaching
public class ClinicApplication {

    /** The vets' cache, as PetClinic's cache configuration declares it (in memory here). */
    @Bean
    CacheManager cacheManager() {
        return new ConcurrentMapCacheManager("vets");
    }
}
