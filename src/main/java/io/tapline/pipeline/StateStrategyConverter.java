package io.tapline.pipeline;

import jakarta.persistence.AttributeConverter;
import jakarta.persistence.Converter;

/** Stores {@link StateStrategy} lowercase, as Meltano spells it. */
@Converter
public class StateStrategyConverter implements AttributeConverter<StateStrategy, String> {

    @Override
    public String convertToDatabaseColumn(StateStrategy s) {
        return s == null ? null : s.id();
    }

    @Override
    public StateStrategy convertToEntityAttribute(String value) {
        return value == null ? null : StateStrategy.parse(value);
    }
}
