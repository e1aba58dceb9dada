package io.tapline.deploy;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import io.smallrye.config.WithParentName;
import io.tapline.common.config.TaplineConfig;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/operations.md documents every {@code tapline.*} setting of {@link TaplineConfig}, once, with
 * its environment variable and its real default. A new setting fails this test until its row is
 * added to the table.
 */
class OperationsDocTest {

    private static final Path DOC = Path.of("docs/operations.md");

    @Test
    void theConfigurationTableCoversEveryTaplineSettingWithItsDefault() throws Exception {
        Map<String, String> settings = new TreeMap<>();
        collect(TaplineConfig.class.getAnnotation(ConfigMapping.class).prefix(), TaplineConfig.class, settings);
        assertTrue(settings.size() > 20, settings.toString());

        Map<String, String[]> rows = new TreeMap<>();
        for (String line : Files.readAllLines(DOC)) {
            if (!line.startsWith("| `tapline.")) {
                continue;
            }
            String[] cells = line.split("\\|");
            String key = unquote(cells[1]);
            assertTrue(rows.put(key, cells) == null, "documented twice: " + key);
        }
        assertEquals(settings.keySet(), rows.keySet(), "docs/operations.md must list exactly the tapline.* settings");

        settings.forEach((key, fallback) -> {
            String[] cells = rows.get(key);
            String env = key.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(Locale.ROOT);
            assertEquals(env, unquote(cells[2]), "environment variable of " + key);
            String documented = cells[3].trim();
            if (fallback == null) {
                assertTrue(documented.startsWith("none"), key + " has no default, the table says " + documented);
            } else {
                assertTrue(documented.startsWith("`" + fallback + "`"),
                        key + " defaults to " + fallback + ", the table says " + documented);
            }
            assertTrue(cells[4].trim().length() > 20, "meaning of " + key);
        });
    }

    private static String unquote(String cell) {
        String c = cell.trim();
        return c.startsWith("`") && c.endsWith("`") ? c.substring(1, c.length() - 1) : c;
    }

    /** Property name -> its {@code @WithDefault} (null without one), through nested groups. */
    private static void collect(String prefix, Class<?> group, Map<String, String> out) {
        for (Method method : group.getMethods()) {
            if (method.getParameterCount() != 0 || method.isDefault() || Modifier.isStatic(method.getModifiers())) {
                continue;
            }
            String name = method.isAnnotationPresent(WithParentName.class) ? prefix
                    : prefix + "." + Optional.ofNullable(method.getAnnotation(WithName.class)).map(WithName::value)
                    .orElseGet(() -> method.getName().replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT));
            Class<?> type = valueType(method.getGenericReturnType());
            if (type.isInterface() && !type.getName().startsWith("java.")) {
                collect(name, type, out);
            } else {
                WithDefault d = method.getAnnotation(WithDefault.class);
                out.put(name, d == null ? null : d.value());
            }
        }
    }

    private static Class<?> valueType(Type type) {
        if (type instanceof ParameterizedType p) {
            Class<?> raw = (Class<?>) p.getRawType();
            return raw == Optional.class ? valueType(p.getActualTypeArguments()[0]) : raw;
        }
        return type instanceof Class<?> c ? c : Object.class;
    }
}
