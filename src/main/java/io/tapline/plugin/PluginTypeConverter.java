package io.tapline.plugin;

import jakarta.persistence.AttributeConverter;
import jakarta.persistence.Converter;

/** Stores {@link PluginType} as its plural lowercase name ({@code extractors}). */
@Converter
public class PluginTypeConverter implements AttributeConverter<PluginType, String> {

    @Override
    public String convertToDatabaseColumn(PluginType type) {
        return type == null ? null : type.id();
    }

    @Override
    public PluginType convertToEntityAttribute(String value) {
        return value == null ? null : PluginType.fromPath(value);
    }
}
