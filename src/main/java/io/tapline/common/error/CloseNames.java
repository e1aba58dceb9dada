package io.tapline.common.error;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;

/**
 * The known name a caller probably meant by an unknown one, for "Unknown field 'pip_url'. Did you
 * mean 'pipUrl'?": first a name equal but for case, {@code _} and {@code -} (Meltano's snake case
 * against the API's camel case), else the one nearest by edit distance when that distance is at
 * most 2 and less than half the name's length. Names of more than 100 characters are not compared.
 */
public final class CloseNames {

    private static final int MAX_LENGTH = 100;

    private CloseNames() {
    }

    /**
     * @param unknown the name the caller sent
     * @param known the names that exist (their {@code toString()}), in a stable order: the first
     *              of equally near names wins
     * @return the close name, or empty when none is close
     */
    public static Optional<String> closest(String unknown, Collection<?> known) {
        if (unknown == null || unknown.isEmpty() || unknown.length() > MAX_LENGTH || known == null) {
            return Optional.empty();
        }
        String folded = fold(unknown);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (Object k : known) {
            String name = String.valueOf(k);
            if (name.length() > MAX_LENGTH) {
                continue;
            }
            if (fold(name).equals(folded)) {
                return Optional.of(name);
            }
            int d = distance(unknown.toLowerCase(Locale.ROOT), name.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                bestDistance = d;
                best = name;
            }
        }
        return bestDistance <= 2 && bestDistance * 2 < unknown.length() ? Optional.ofNullable(best) : Optional.empty();
    }

    private static String fold(String name) {
        return name.replace("_", "").replace("-", "").toLowerCase(Locale.ROOT);
    }

    /** Levenshtein distance, two rows. */
    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] t = previous;
            previous = current;
            current = t;
        }
        return previous[b.length()];
    }
}
