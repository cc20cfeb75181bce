package dev.dbbulkhead.clinic;

import dev.dbbulkhead.BulkheadRejectedException;
import org.springframework.beans.PropertyAccessException;
import org.springframework.validation.BindingResult;
import org.springframework.validation.DefaultBindingErrorProcessor;
import org.springframework.web.bind.WebDataBinder;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.InitBinder;

/**
 * Lets a refusal met while a form is bound — {@link PetTypeFormatter}'s repository call refused by a full gate —
 * reach db-bulkhead's 503. Spring MVC would record it as the field's conversion error instead, and the form would
 * be shown again with 200, "Failed to convert property value", and no {@code Retry-After}.
 */
@ControllerAdvice
class RefusedWhileBinding {

    @InitBinder
    void refusalsAreNotFieldErrors(WebDataBinder binder) {
        binder.setBindingErrorProcessor(new DefaultBindingErrorProcessor() {
            @Override
            public void processPropertyAccessException(PropertyAccessException failure, BindingResult result) {
                for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
                    if (cause instanceof BulkheadRejectedException rejected) {
                        throw rejected;
                    }
                }
                super.processPropertyAccessException(failure, result);
            }
        });
    }
}
