package dev.dbbulkhead.clinic;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;
import org.springframework.validation.BindingResult;
import org.springframework.web.servlet.View;
import org.springframework.web.servlet.ViewResolver;
import org.springframework.web.util.HtmlUtils;

/**
 * The clinic's pages, in place of PetClinic's Thymeleaf templates (this module has no template engine): each view
 * renders its model after the handler returned — every entity by walking it, as a template does — and the errors
 * of every form. Redirects are left to Spring MVC's own resolver.
 */
@Component
class ClinicViews implements ViewResolver, Ordered {

    @Override
    public View resolveViewName(String viewName, Locale locale) {
        return viewName.startsWith("redirect:") ? null : new Page(viewName);
    }

    @Override
    public int getOrder() {
        return 0;
    }

    private record Page(String name) implements View {

        @Override
        public String getContentType() {
            return "text/html;charset=UTF-8";
        }

        @Override
        public void render(Map<String, ?> model, HttpServletRequest request, HttpServletResponse response)
                throws IOException {
            response.setContentType(getContentType());
            PrintWriter out = response.getWriter();
            out.append("<!DOCTYPE html><html><head><title>").append(name).append("</title></head><body>");
            model.forEach((key, value) -> {
                if (value instanceof BindingResult form) {
                    form.getFieldErrors().forEach(error -> out.append("<p class=\"error\">").append(error.getField())
                            .append(' ').append(escape(error.getDefaultMessage())).append("</p>"));
                } else {
                    out.append("<p>").append(key).append(": ").append(escape(String.valueOf(value))).append("</p>");
                }
            });
            out.append("</body></html>");
        }

        private static String escape(String text) {
            return HtmlUtils.htmlEscape(String.valueOf(text));
        }
    }
}
