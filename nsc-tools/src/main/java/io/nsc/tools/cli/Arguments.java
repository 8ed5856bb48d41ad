package io.nsc.tools.cli;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * A parsed command line: {@code --name value} (or {@code --name=value}) options, {@code --flag}
 * switches, and positional arguments in order. {@code --} ends the options.
 */
public final class Arguments
{
    private final Map<String, String> values;
    private final Set<String> flags;
    private final List<String> positionals;

    private Arguments(Map<String, String> values, Set<String> flags, List<String> positionals)
    {
        this.values = ImmutableMap.copyOf(values);
        this.flags = ImmutableSet.copyOf(flags);
        this.positionals = ImmutableList.copyOf(positionals);
    }

    /**
     * @param valueOptions names (without dashes) of options that take a value
     * @param flagOptions names of options that take none
     */
    public static Arguments parse(List<String> args, Set<String> valueOptions, Set<String> flagOptions)
            throws UsageException
    {
        requireNonNull(args, "args is null");
        Map<String, String> values = new HashMap<>();
        Set<String> flags = new HashSet<>();
        ImmutableList.Builder<String> positionals = ImmutableList.builder();
        boolean optionsEnded = false;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (optionsEnded || !arg.startsWith("--")) {
                positionals.add(arg);
                continue;
            }
            if (arg.equals("--")) {
                optionsEnded = true;
                continue;
            }
            String name = arg.substring(2);
            Optional<String> inlineValue = Optional.empty();
            int equals = name.indexOf('=');
            if (equals >= 0) {
                inlineValue = Optional.of(name.substring(equals + 1));
                name = name.substring(0, equals);
            }
            if (flagOptions.contains(name)) {
                if (inlineValue.isPresent()) {
                    throw new UsageException("--%s takes no value".formatted(name));
                }
                flags.add(name);
            }
            else if (valueOptions.contains(name)) {
                String value;
                if (inlineValue.isPresent()) {
                    value = inlineValue.get();
                }
                else if (i + 1 < args.size()) {
                    value = args.get(++i);
                }
                else {
                    throw new UsageException("--%s needs a value".formatted(name));
                }
                if (values.put(name, value) != null) {
                    throw new UsageException("--%s given more than once".formatted(name));
                }
            }
            else {
                throw new UsageException("unknown option --" + name);
            }
        }
        return new Arguments(values, flags, positionals.build());
    }

    public Optional<String> value(String name)
    {
        return Optional.ofNullable(values.get(name));
    }

    public String required(String name)
            throws UsageException
    {
        return value(name).orElseThrow(() -> new UsageException("--%s is required".formatted(name)));
    }

    public Optional<Long> longValue(String name, long min)
            throws UsageException
    {
        Optional<String> text = value(name);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        long value;
        try {
            value = Long.parseLong(text.get().replace("_", ""));
        }
        catch (NumberFormatException e) {
            throw new UsageException("--%s needs a whole number, not '%s'".formatted(name, text.get()));
        }
        if (value < min) {
            throw new UsageException("--%s must be at least %s".formatted(name, min));
        }
        return Optional.of(value);
    }

    public boolean flag(String name)
    {
        return flags.contains(name);
    }

    public List<String> positionals()
    {
        return positionals;
    }
}
