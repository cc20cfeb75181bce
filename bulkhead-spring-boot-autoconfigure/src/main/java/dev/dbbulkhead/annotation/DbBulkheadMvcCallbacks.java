package dev.dbbulkhead.annotation;

import java.lang.reflect.Method;
import java.util.List;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.core.annotation.MergedAnnotations;

/**
 * Spring MVC's callbacks on a controller or a controller advice — {@code @InitBinder}, {@code @ModelAttribute}
 * and {@code @ExceptionHandler} methods — which MVC calls around every handler. A type-level {@code @DbBulkhead}
 * does not cover them: gated, they cost a page several admissions and connections, and a {@code @ModelAttribute}
 * method's in-memory change to an entity would be flushed. Named by class name, so that applications without
 * Spring MVC need none of it.
 */
final class DbBulkheadMvcCallbacks {

    private static final String PACKAGE = "org.springframework.web.bind.annotation.";
    private static final List<String> CALLBACKS = List.of(PACKAGE + "InitBinder", PACKAGE + "ModelAttribute",
            PACKAGE + "ExceptionHandler");
    private static final String HANDLER = PACKAGE + "RequestMapping";

    private DbBulkheadMvcCallbacks() {
    }

    /** Whether MVC calls {@code method} as a callback; a handler may also name its model attribute, and is none. */
    static boolean isCallback(Method method) {
        MergedAnnotations annotations = MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY);
        return !annotations.isPresent(HANDLER) && CALLBACKS.stream().anyMatch(annotations::isPresent);
    }
}
