package dev.dbbulkhead.clinic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dbbulkhead.BulkheadRejectedException;
import dev.dbbulkhead.jpa.FullGate;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.MutablePropertyValues;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.convert.ConversionService;
import org.springframework.validation.BindingResult;
import org.springframework.web.bind.WebDataBinder;
import tools.jackson.databind.JsonNode;

/**
 * The clinic's pages one by one: the visit form, whose loader adds a blank visit, works; a page without database
 * work and a cached page take no permit, so they are answered even while their gate is full; a pet posted through
 * the formatter is saved, and the formatter refused while a form is bound is a refusal, not a field error.
 */
class ClinicPagesTests extends ClinicTest {

    @Autowired
    ConversionService mvcConversionService;

    @Autowired
    RefusedWhileBinding refusedWhileBinding;

    @Test
    void theVisitFormIsShownAndItsPostAddsTheVisitButNeverTheBlankOneItsLoaderAdded() throws Exception {
        Owner owner = ownerWithPet("Visited", "Leo");
        int petId = owner.getPets().get(0).getId();
        String form = "/owners/" + owner.getId() + "/pets/" + petId + "/visits/new";

        HttpResponse<String> shown = client.get(form);
        assertThat(shown.statusCode()).as(shown.body()).isEqualTo(200);
        assertThat(shown.body()).contains("Leo the cat");
        assertThat(visitsOf(petId)).as("visits after the form was shown").isEqualTo("0");

        HttpResponse<String> posted = client.post(form, Map.of("date", "2025-03-01", "description", "rabies shot"));

        assertThat(posted.statusCode()).as(posted.body()).isEqualTo(302);
        assertThat(posted.headers().firstValue("Location")).hasValueSatisfying(
                location -> assertThat(location).endsWith("/owners/" + owner.getId()));
        assertThat(visitsOf(petId)).isEqualTo("1");
        assertThat(onTheServer("SELECT description FROM visits WHERE pet_id = " + petId)).isEqualTo("rabies shot");
        assertThat(client.get("/owners/" + owner.getId()).body()).contains("2025-03-01 rabies shot");
    }

    @Test
    void aVisitPostedBlankIsShownAgainWithItsErrorAndNothingIsWritten() throws Exception {
        Owner owner = ownerWithPet("Blank", "Basil");
        int petId = owner.getPets().get(0).getId();

        HttpResponse<String> posted = client.post("/owners/" + owner.getId() + "/pets/" + petId + "/visits/new",
                Map.of("date", "2025-03-01", "description", ""));

        assertThat(posted.statusCode()).as(posted.body()).isEqualTo(200);
        assertThat(posted.body()).contains("description must not be blank");
        assertThat(visitsOf(petId)).isEqualTo("0");
    }

    @Test
    void aPageWithoutDatabaseWorkTakesNoPermitAndIsAnsweredWhileTheGateIsFull() throws Exception {
        JsonNode before = workloads();

        HttpResponse<String> page = client.get("/owners/find");

        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(workloads()).as("the gates' counters").isEqualTo(before);
        try (FullGate full = FullGate.of(registry.template("clinic"))) {
            assertThat(client.get("/owners/find").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aCachedVetsPageTakesNoPermitAndIsAnsweredWhileTheGateIsFull() throws Exception {
        assertThat(client.get("/vets.html").statusCode()).as("the first answer fills the cache").isEqualTo(200);
        JsonNode before = workloads();

        HttpResponse<String> page = client.get("/vets.html");

        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("James Carter", "Henry Stevens");
        assertThat(workloads()).as("the gates' counters").isEqualTo(before);
        try (FullGate full = FullGate.of(registry.template("vets"))) {
            assertThat(client.get("/vets.html").body()).contains("James Carter");
        }
    }

    @Test
    void aPetPostedWithItsTypeNameIsBoundByTheFormatterAndSavedButNeverTheBlankOneOfTheForm() throws Exception {
        Owner owner = ownerWithPet("Formatted", "Leo");
        String form = "/owners/" + owner.getId() + "/pets/new";
        assertThat(client.get(form).statusCode()).as("the form, whose handler adds a blank pet").isEqualTo(200);

        HttpResponse<String> posted = client.post(form, Map.of("name", "Rosy", "birthDate", "2024-05-01",
                "type", "dog"));

        assertThat(posted.statusCode()).as(posted.body()).isEqualTo(302);
        // Every pet of the owner, those without a name or a type included: the form's blank pet would be both.
        assertThat(onTheServer("SELECT string_agg(coalesce(p.name, '-') || ' ' || coalesce(t.name, '-'), ', '"
                + " ORDER BY p.name) FROM pets p LEFT JOIN types t ON t.id = p.type_id WHERE p.owner_id = "
                + owner.getId())).isEqualTo("Leo cat, Rosy dog");
    }

    /**
     * The pet form's type bound as Spring MVC binds it, with the gate full: as a post under load meets it when its
     * loaders were admitted and the formatter's call is refused.
     */
    @Test
    void aFormatterRefusedWhileAFormIsBoundThrowsTheRefusalForThe503InsteadOfRecordingAFieldError() throws Exception {
        try (FullGate full = FullGate.of(registry.template("clinic"))) {
            BindingResult recorded = bindPetType(new WebDataBinder(new Pet(), "pet"));
            assertThat(recorded.getFieldError("type")).as("Spring MVC's own binding records the refusal")
                    .isNotNull();

            WebDataBinder binder = new WebDataBinder(new Pet(), "pet");
            refusedWhileBinding.refusalsAreNotFieldErrors(binder);
            assertThatThrownBy(() -> bindPetType(binder)).isInstanceOf(BulkheadRejectedException.class);
        }
    }

    private BindingResult bindPetType(WebDataBinder binder) {
        binder.setConversionService(mvcConversionService);
        binder.bind(new MutablePropertyValues(Map.of("type", "dog")));
        return binder.getBindingResult();
    }

    private JsonNode workloads() throws Exception {
        return client.bulkheads().get("workloads");
    }

    private static String visitsOf(int petId) {
        return onTheServer("SELECT count(*) FROM visits WHERE pet_id = " + petId);
    }
}
