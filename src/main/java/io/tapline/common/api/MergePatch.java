package io.tapline.common.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.tapline.common.error.InvalidInputException;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;

/**
 * JSON Merge Patch (RFC 7396, {@code application/merge-patch+json}): a patch object's members
 * replace the target's, {@code null} removes a member, nested objects merge recursively, and any
 * other value (arrays included) replaces the whole member. Used by the {@code PATCH} operations,
 * which merge the patch into the resource as {@code GET} shows it and send the result through
 * the same validation as {@code PUT}.
 */
public final class MergePatch {

    /** Media type of merge patch bodies. */
    public static final String MEDIA_TYPE = "application/merge-patch+json";

    private MergePatch() {
    }

    /**
     * Applies {@code patch} to {@code target} (RFC 7396 section 2) and returns the result; the
     * arguments are not changed.
     */
    public static JsonNode apply(JsonNode target, JsonNode patch) {
        if (patch == null || !patch.isObject()) {
            return patch == null ? target : patch.deepCopy();
        }
        ObjectNode result = target != null && target.isObject() ? ((ObjectNode) target).deepCopy()
                : ((ObjectNode) patch).objectNode();
        Iterator<Map.Entry<String, JsonNode>> fields = patch.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> f = fields.next();
            if (f.getValue().isNull()) {
                result.remove(f.getKey());
            } else {
                result.set(f.getKey(), apply(result.get(f.getKey()), f.getValue()));
            }
        }
        return result;
    }

    /**
     * Merges a patch into a resource's current representation and reads the result as the
     * resource's request type (the body PUT takes).
     *
     * @param mapper the service's JSON mapper (unknown fields fail)
     * @param current the resource as GET shows it
     * @param readOnly response-only members, dropped before the patch is applied; a patch naming
     *     one is refused
     * @param patch the patch; must be a JSON object
     * @param requestType the PUT body type
     * @return the full request PUT would receive
     * @throws InvalidInputException 400 when the patch is not an object or names a read-only member
     * @throws JsonProcessingException when the merged document does not fit the request type (a
     *     400 problem naming the field, as for PUT)
     */
    public static <T> T merge(ObjectMapper mapper, Object current, Collection<String> readOnly, JsonNode patch,
                              Class<T> requestType) throws JsonProcessingException {
        if (patch == null || !patch.isObject()) {
            throw InvalidInputException.field("body", "must be a JSON merge patch object (RFC 7396), for example"
                    + " {\"timeoutSeconds\": 600}; null removes a field");
        }
        for (String field : readOnly) {
            if (patch.has(field)) {
                throw InvalidInputException.field(field, "is read-only and cannot be patched");
            }
        }
        ObjectNode target = mapper.valueToTree(current);
        target.remove(readOnly);
        return mapper.treeToValue(apply(target, patch), requestType);
    }
}
