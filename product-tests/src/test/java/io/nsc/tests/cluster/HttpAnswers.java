package io.nsc.tests.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

import static com.google.common.base.Preconditions.checkState;
import static com.google.common.collect.ImmutableMap.toImmutableMap;

/** What both clusters do with the answers of Trino's REST API and the services' HTTP endpoints. */
final class HttpAnswers
{
    private HttpAnswers() {}

    /** The body of a request that must answer 200. */
    static String body(HttpClient http, HttpRequest request)
    {
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            checkState(response.statusCode() == 200, "%s answered %s: %s", request.uri(), response.statusCode(), response.body());
            return response.body();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
    }

    /** The counters of a {@code /v1/metrics} answer: one "name value" line each. */
    static Map<String, Long> counters(String metrics)
    {
        return metrics.lines()
                .map(line -> line.split(" "))
                .filter(parts -> parts.length == 2 && parts[1].matches("-?\\d+"))
                .collect(toImmutableMap(parts -> parts[0], parts -> Long.parseLong(parts[1])));
    }
}
