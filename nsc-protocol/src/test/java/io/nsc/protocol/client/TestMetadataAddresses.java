package io.nsc.protocol.client;

import com.google.common.net.HostAndPort;
import jakarta.validation.Validation;
import jakarta.validation.Validator;
import org.hibernate.validator.messageinterpolation.ParameterMessageInterpolator;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestMetadataAddresses
{
    @Test
    void testParsesInOrder()
    {
        MetadataAddresses addresses = MetadataAddresses.parse("meta-2.example:7072, 127.0.0.1:7070 ,[::1]:7074");
        assertThat(addresses.addresses()).containsExactly(
                HostAndPort.fromParts("meta-2.example", 7072),
                HostAndPort.fromParts("127.0.0.1", 7070),
                HostAndPort.fromParts("::1", 7074));
        assertThat(addresses.preferred()).isEqualTo(HostAndPort.fromParts("meta-2.example", 7072));
        assertThat(addresses).hasToString("meta-2.example:7072,127.0.0.1:7070,[::1]:7074");
        assertThat(MetadataAddresses.parse(addresses.toString())).isEqualTo(addresses);
    }

    @Test
    void testSingleAddress()
    {
        assertThat(MetadataAddresses.parse("127.0.0.1:7070").addresses()).containsExactly(HostAndPort.fromParts("127.0.0.1", 7070));
    }

    @Test
    void testRejects()
    {
        assertRejected("", "at least one metadata service address is needed");
        assertRejected("  ", "at least one metadata service address is needed");
        assertRejected("no-port", "metadata service address 'no-port' is not host:port");
        assertRejected("127.0.0.1:7070,no-port", "metadata service address 'no-port' is not host:port");
        assertRejected("127.0.0.1:7070,", "empty entry in the metadata service addresses: every entry must be host:port");
        assertRejected("127.0.0.1:7070,,127.0.0.1:7072", "empty entry in the metadata service addresses: every entry must be host:port");
        assertRejected("127.0.0.1:notaport", "metadata service address '127.0.0.1:notaport' is not host:port");
        assertRejected(":7070", "metadata service address ':7070' is not host:port");
        assertRejected("127.0.0.1:7070,127.0.0.1:7072, 127.0.0.1:7070", "metadata service address 127.0.0.1:7070 is listed twice");
        assertThatThrownBy(() -> new MetadataAddresses(List.of()))
                .hasMessage("at least one metadata service address is needed");
    }

    @Test
    void testValidatorNamesTheWrongEntry()
    {
        // as Airlift validates configuration: no expression language
        Validator validator = Validation.byDefaultProvider().configure()
                .messageInterpolator(new ParameterMessageInterpolator())
                .buildValidatorFactory()
                .getValidator();
        assertThat(validator.validate(new Settings("a:1,b:2"))).isEmpty();
        assertThat(validator.validate(new Settings(null))).isEmpty();
        assertThat(validator.validate(new Settings("a:1,${x}")))
                .extracting(violation -> violation.getMessage())
                .containsExactly("metadata service address '${x}' is not host:port");
        assertThat(validator.validate(new Settings("a:1,a:1")))
                .extracting(violation -> violation.getMessage())
                .containsExactly("metadata service address a:1 is listed twice");
    }

    private static void assertRejected(String addresses, String message)
    {
        assertThatThrownBy(() -> MetadataAddresses.parse(addresses))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }

    private record Settings(@ValidMetadataAddresses String addresses) {}
}
