package io.tapline.project.assess;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The assessment names the step to the next level. */
class AssessmentNextStepTest {

    @Test
    void eachLevelBelowMatureNamesTheStepToTheNext() {
        assertEquals("Import a meltano.yml (POST /api/v1/projects:import) with at least two environments, for example"
                + " dev and prod, to reach developing.", ProjectAssessor.nextStep("basic", 0, false));
        assertEquals("Add a second environment to meltano.yml (environments:, for example dev and prod) and import it"
                + " again to reach developing.", ProjectAssessor.nextStep("basic", 1, false));
        assertEquals("Add a production environment (named prod or production) as a third environment to meltano.yml"
                + " and import again to reach mature.", ProjectAssessor.nextStep("developing", 2, false));
        assertEquals("Add a production environment (named prod or production) to meltano.yml and import again to"
                + " reach mature.", ProjectAssessor.nextStep("developing", 3, false));
        assertEquals("Add a third environment (for example staging beside dev and prod) and import again to reach"
                + " mature.", ProjectAssessor.nextStep("developing", 2, true));
        assertNull(ProjectAssessor.nextStep("mature", 3, true));
    }
}
