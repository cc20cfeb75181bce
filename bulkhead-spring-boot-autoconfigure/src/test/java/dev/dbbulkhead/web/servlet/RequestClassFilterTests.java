package dev.dbbulkhead.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.gate.Criticality;
import dev.dbbulkhead.gate.OperationClass;
import java.security.Principal;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;

class RequestClassFilterTests {

    @Test
    void theRequestsClassIsItsCriticalityHeaderAndItsKey() {
        RequestClassFilter filter = new RequestClassFilter("X-Criticality", BulkheadKeyResolver.header("X-Tenant"));
        MockHttpServletRequest request = new MockHttpServletRequest();
        assertThat(filter.classOf(request)).as("neither").isNull();
        request.addHeader("X-Criticality", " Sheddable ");
        assertThat(filter.classOf(request)).isEqualTo(OperationClass.of(Criticality.SHEDDABLE));
        request.addHeader("X-Tenant", "acme");
        assertThat(filter.classOf(request)).isEqualTo(OperationClass.of(Criticality.SHEDDABLE, "acme"));
        MockHttpServletRequest unknown = new MockHttpServletRequest();
        unknown.addHeader("X-Criticality", "urgent");
        assertThat(filter.classOf(unknown)).as("a value it cannot read is no criticality").isNull();
    }

    @Test
    void thePrincipalsNameIsTheKeyAndAnAnonymousRequestHasNone() {
        MockHttpServletRequest request = new MockHttpServletRequest();
        assertThat(BulkheadKeyResolver.principal().keyOf(request)).isNull();
        Principal acme = () -> "acme";
        request.setUserPrincipal(acme);
        assertThat(BulkheadKeyResolver.principal().keyOf(request)).isEqualTo("acme");
    }
}
