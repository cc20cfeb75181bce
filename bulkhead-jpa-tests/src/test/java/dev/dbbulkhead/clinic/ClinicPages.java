package dev.dbbulkhead.clinic;

import java.util.List;
import java.util.Map;

/**
 * Every page of the clinic as a browser asks it, for a client's owner and pet: the find form and the vets list,
 * which a full gate never refuses (no database work; a cache hit), and the pages and posts that need the database.
 */
final class ClinicPages {

    static final List<ClinicLoad.Page> ALL = List.of(
            new ClinicLoad.Page("find form", 200, false, (client, patient, round) -> client.get("/owners/find")),
            new ClinicLoad.Page("owners found", 200, true,
                    (client, patient, round) -> client.get("/owners?lastName=" + patient.lastName())),
            new ClinicLoad.Page("owner", 200, true,
                    (client, patient, round) -> client.get("/owners/" + patient.ownerId())),
            new ClinicLoad.Page("pet form", 200, true,
                    (client, patient, round) -> client.get(petForm(patient))),
            new ClinicLoad.Page("pet posted", 302, true, (client, patient, round) -> client.post(petForm(patient),
                    Map.of("name", patient.tag() + "-" + round, "birthDate", "2024-05-01", "type", "dog"))),
            new ClinicLoad.Page("visit form", 200, true,
                    (client, patient, round) -> client.get(visitForm(patient))),
            new ClinicLoad.Page("visit posted", 302, true, (client, patient, round) -> client.post(visitForm(patient),
                    Map.of("date", "2025-03-01", "description", patient.tag() + " check-up " + round))),
            new ClinicLoad.Page("vets", 200, false, (client, patient, round) -> client.get("/vets.html")));

    private ClinicPages() {
    }

    private static String petForm(ClinicLoad.Patient patient) {
        return "/owners/" + patient.ownerId() + "/pets/new";
    }

    private static String visitForm(ClinicLoad.Patient patient) {
        return "/owners/" + patient.ownerId() + "/pets/" + patient.petId() + "/visits/new";
    }
}
