package dev.dbbulkhead.web.servlet;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import org.springframework.web.util.HtmlUtils;

/**
 * The page a browser gets for a refusal when the application has no error view of its own for 503: that the service
 * is busy and when to try again, nothing else — no workload, reason or status detail a person cannot act on. Written
 * straight to the response, with no template engine and no error dispatch, so that it costs about what the problem
 * JSON costs; its only variable part, the {@code Retry-After} value, is escaped.
 *
 * <p>No automatic reload: every refused browser reloading after exactly {@code Retry-After} would come back at once,
 * a retry storm on a service that is already overloaded. The person decides.
 */
final class BusyPage {

    private static final String TOP = """
            <!DOCTYPE html>
            <html lang="en">
            <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">\
            <title>Service busy</title></head>
            <body><h1>Service busy</h1><p>The service is busy right now. Please try again\s""";
    private static final String BOTTOM = ".</p></body>\n</html>\n";

    private BusyPage() {
    }

    /** Writes the page with {@code status} on {@code response}, which holds no body yet. */
    static void write(HttpServletResponse response, int status, @Nullable String retryAfter) throws IOException {
        byte[] page = html(retryAfter).getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.setContentType("text/html;charset=UTF-8");
        response.setContentLength(page.length);
        response.getOutputStream().write(page);
    }

    /** The page for a {@code Retry-After} of whole seconds, of an HTTP date, or of nothing. */
    static String html(@Nullable String retryAfter) {
        return TOP + when(retryAfter) + BOTTOM;
    }

    private static String when(@Nullable String retryAfter) {
        String value = retryAfter == null ? "" : retryAfter.trim();
        if (value.chars().allMatch(Character::isDigit)) {
            long seconds = value.isEmpty() || value.length() > 9 ? 0 : Long.parseLong(value);
            return seconds == 0 ? "in a moment" : seconds == 1 ? "in 1 second" : "in " + seconds + " seconds";
        }
        // An HTTP date, from a handler of the application's own: shown as sent, escaped.
        return "after " + HtmlUtils.htmlEscape(value);
    }
}
