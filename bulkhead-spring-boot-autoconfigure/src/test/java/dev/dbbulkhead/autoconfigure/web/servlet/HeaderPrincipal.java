package dev.dbbulkhead.autoconfigure.web.servlet;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.security.Principal;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;

/**
 * Stands for authentication in tests of keys from the principal: a filter ahead of every other gives each request the
 * principal its {@code X-User} header names, and none without it. No security framework needed. Imported by the tests
 * that want it; not annotated, so that no component scan of this package picks it up.
 */
class HeaderPrincipal {

    @Bean
    FilterRegistrationBean<Filter> authentication() {
        Filter authenticate = (request, response, chain) -> {
            String user = ((HttpServletRequest) request).getHeader("X-User");
            chain.doFilter(user == null ? request : new HttpServletRequestWrapper((HttpServletRequest) request) {
                @Override
                public Principal getUserPrincipal() {
                    return () -> user;
                }
            }, response);
        };
        FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(authenticate);
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
        return registration;
    }
}
