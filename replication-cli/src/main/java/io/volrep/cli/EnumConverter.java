package io.volrep.cli;

import java.util.Locale;
import picocli.CommandLine;

/**
 * An option value naming an enum constant in any case ({@code off}, {@code OFF}); anything else is a usage error
 * saying what is accepted, e.g. {@code not a containment: "maybe" (use auto, required or off)}.
 */
abstract class EnumConverter<E extends Enum<E>> implements CommandLine.ITypeConverter<E> {
    private final Class<E> type;
    private final String what;
    private final String choices;

    EnumConverter(Class<E> type, String what, String choices) {
        this.type = type;
        this.what = what;
        this.choices = choices;
    }

    @Override
    public E convert(String value) {
        try {
            return Enum.valueOf(type, value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(
                    "not a " + what + ": \"" + value + "\" (use " + choices + ")");
        }
    }
}
