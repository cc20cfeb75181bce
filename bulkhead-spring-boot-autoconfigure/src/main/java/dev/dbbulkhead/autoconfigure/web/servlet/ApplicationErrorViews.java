package dev.dbbulkhead.autoconfigure.web.servlet;

import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.springframework.boot.autoconfigure.template.TemplateAvailabilityProviders;
import org.springframework.boot.autoconfigure.web.WebProperties;
import org.springframework.boot.webmvc.autoconfigure.error.DefaultErrorViewResolver;
import org.springframework.boot.webmvc.autoconfigure.error.ErrorViewResolver;
import org.springframework.context.ApplicationContext;
import org.springframework.core.io.Resource;
import org.springframework.http.HttpStatus;
import org.springframework.util.function.SingletonSupplier;

/**
 * Whether the application has an error view of its own for a 503, which then answers browsers instead of
 * db-bulkhead's page: an {@code error/503} template of any engine Boot knows, or a static {@code error/503.html}, where
 * Boot's error handling finds them; or an {@link ErrorViewResolver} bean of the application's that resolves a view for
 * the request. Boot's {@code error/5xx} and generic {@code error} views do not count: written for failures, they tell a
 * person nothing about coming back.
 *
 * <p>Templates and static pages are looked for once, at the first refusal of a browser (they do not appear while the
 * application runs); an application's resolver is asked at every one, as Boot asks it.
 */
final class ApplicationErrorViews implements Predicate<HttpServletRequest> {

    private static final String VIEW = "error/503";
    private static final HttpStatus STATUS = HttpStatus.SERVICE_UNAVAILABLE;

    private final SingletonSupplier<Boolean> templateOrPage;
    private final SingletonSupplier<List<ErrorViewResolver>> resolvers;

    ApplicationErrorViews(ApplicationContext context) {
        this.templateOrPage = SingletonSupplier.of(() -> new TemplateAvailabilityProviders(context)
                .getProvider(VIEW, context) != null
                || staticPage(context, context.getBeanProvider(WebProperties.class).getIfAvailable(WebProperties::new)));
        this.resolvers = SingletonSupplier.of(() -> context.getBeanProvider(ErrorViewResolver.class).orderedStream()
                .filter(resolver -> !(resolver instanceof DefaultErrorViewResolver)).toList());
    }

    @Override
    public boolean test(HttpServletRequest request) {
        if (templateOrPage.obtain()) {
            return true;
        }
        Map<String, Object> model = Map.of("status", STATUS.value(), "error", STATUS.getReasonPhrase(),
                "path", request.getRequestURI());
        return resolvers.obtain().stream().anyMatch(resolver -> resolver.resolveErrorView(request, STATUS, model) != null);
    }

    /** As Boot's {@code DefaultErrorViewResolver} looks for a static error page. */
    private static boolean staticPage(ApplicationContext context, WebProperties web) {
        for (String location : web.getResources().getStaticLocations()) {
            try {
                Resource page = context.getResource(location).createRelative(VIEW + ".html");
                if (page.exists()) {
                    return true;
                }
            } catch (Exception unreadable) {
                // A location that cannot be read holds no page, as for Boot.
            }
        }
        return false;
    }
}
