package dev.dbbulkhead.clinic;

import java.text.ParseException;
import java.util.Locale;
import org.springframework.format.Formatter;
import org.springframework.stereotype.Component;

/**
 * Binds a pet's type from the form's type name, loading the types as PetClinic's formatter does: MVC calls it while
 * it binds the form, before the handler runs, so it is gated only because the repository it calls is.
 */
@Component
class PetTypeFormatter implements Formatter<PetType> {

    private final PetTypeRepository types;

    PetTypeFormatter(PetTypeRepository types) {
        this.types = types;
    }

    @Override
    public String print(PetType type, Locale locale) {
        return type.getName();
    }

    @Override
    public PetType parse(String text, Locale locale) throws ParseException {
        return types.findPetTypes().stream().filter(type -> type.getName().equals(text)).findFirst()
                .orElseThrow(() -> new ParseException("type not found: " + text, 0));
    }
}
