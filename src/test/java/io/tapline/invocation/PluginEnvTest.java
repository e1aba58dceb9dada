package io.tapline.invocation;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tapline.common.json.Jsons;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A utility's settings as environment variables, named as Meltano names them. */
class PluginEnvTest {

    @Test
    void settingsBecomeMeltanoNamedVariables() {
        RunPlan.Component summarize = new RunPlan.Component("summarize", "utilities", "/opt/summarize", List.of(),
                List.of(), Jsons.readObject("{}"), List.of(), List.of(), Jsons.readObject("{}"), null, Map.of(), null, null, null, null, null);
        ObjectNode config = Jsons.readObject("{\"input_dir\": \"/data\", \"nested\": {\"depth\": 2}, \"flag\": true,"
                + " \"list\": [1, \"a\"], \"none\": null, \"dotted.key-name\": \"v\"}");
        Map<String, String> env = PluginEnv.of(summarize, config, "prod", "/runs/r1", "r1");
        assertEquals("/data", env.get("SUMMARIZE_INPUT_DIR"));
        assertEquals("/data", env.get("MELTANO_UTILIZE_INPUT_DIR"));
        assertEquals("2", env.get("SUMMARIZE_NESTED_DEPTH"));
        assertEquals("true", env.get("SUMMARIZE_FLAG"));
        assertEquals("[1,\"a\"]", env.get("SUMMARIZE_LIST"));
        assertEquals("v", env.get("SUMMARIZE_DOTTED_KEY_NAME"));
        assertEquals(false, env.containsKey("SUMMARIZE_NONE"));
        assertEquals("summarize", env.get("MELTANO_UTILITY_NAME"));
        assertEquals("/opt/summarize", env.get("MELTANO_UTILITY_EXECUTABLE"));
        assertEquals("prod", env.get("MELTANO_ENVIRONMENT"));
        assertEquals("/runs/r1", env.get("MELTANO_PROJECT_ROOT"));
        assertEquals("r1", env.get("MELTANO_RUN_ID"));
        RunPlan.Component dbt = new RunPlan.Component("dbt-postgres", "transformers", "dbt", List.of(), List.of(),
                Jsons.readObject("{}"), List.of(), List.of(), Jsons.readObject("{}"), null, Map.of(), null, null, null, null, null);
        Map<String, String> d = PluginEnv.of(dbt, Jsons.readObject("{\"host\": \"db\"}"), null, "/r", "r");
        assertEquals("db", d.get("DBT_POSTGRES_HOST"));
        assertEquals("db", d.get("MELTANO_TRANSFORM_HOST"));
        assertEquals("dbt-postgres", d.get("MELTANO_TRANSFORMER_NAME"));
        // Meltano's defaults without a namespace and variant: the name with '-' as '_', and "default"
        assertEquals("dbt_postgres", d.get("MELTANO_TRANSFORMER_NAMESPACE"));
        assertEquals("default", d.get("MELTANO_TRANSFORMER_VARIANT"));
    }

    @Test
    void everySettingAlsoUnderTheNamespaceAndTheParentAsMeltanoWritesThem() {
        RunPlan.Component envdump = new RunPlan.Component("envdump3", "utilities", "/opt/envdump", List.of(),
                List.of(), Jsons.readObject("{}"), List.of(), List.of(), Jsons.readObject("{}"), null, Map.of(), null,
                null, "envdump", "meltanolabs", null);
        Map<String, String> env = PluginEnv.of(envdump, Jsons.readObject("{\"api_token\": \"t0k\"}"), null, "/r", "r");
        assertEquals("t0k", env.get("ENVDUMP3_API_TOKEN"));
        assertEquals("t0k", env.get("ENVDUMP_API_TOKEN"));
        assertEquals("t0k", env.get("MELTANO_UTILIZE_API_TOKEN"));
        assertEquals("envdump", env.get("MELTANO_UTILITY_NAMESPACE"));
        assertEquals("meltanolabs", env.get("MELTANO_UTILITY_VARIANT"));
        assertEquals("envdump3", env.get("MELTANO_UTILITY_NAME"));

        RunPlan.Component child = new RunPlan.Component("dbt-prod", "transformers", "dbt", List.of(), List.of(),
                Jsons.readObject("{}"), List.of(), List.of(), Jsons.readObject("{}"), null, Map.of(), null, null, null,
                null, "dbt-postgres");
        Map<String, String> c = PluginEnv.of(child, Jsons.readObject("{\"host\": \"db\"}"), null, "/r", "r");
        assertEquals(List.of("DBT_PROD", "DBT_POSTGRES", "MELTANO_TRANSFORM"),
                List.copyOf(PluginEnv.prefixes(child, "TRANSFORM")));
        assertEquals("db", c.get("DBT_PROD_HOST"));
        assertEquals("db", c.get("DBT_POSTGRES_HOST"), "the parent's prefix (Meltano's env_prefixes for writing)");
        assertEquals("db", c.get("MELTANO_TRANSFORM_HOST"));
    }
}
