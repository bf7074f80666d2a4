package io.outpost.loadtest.grid;

import io.outpost.server.OutpostApplication;
import java.util.List;
import java.util.concurrent.Callable;
import org.springframework.boot.SpringApplication;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/** An Outpost origin of the grid: the service itself, in its host's namespace, with the arguments given. */
@Command(name = "grid-origin", hidden = true, description = "An Outpost origin of the grid (started by 'grid').")
public final class GridOrigin implements Callable<Integer> {
    @Unmatched
    List<String> args = new java.util.ArrayList<>(); // Spring Boot's --key=value arguments

    @Override
    public Integer call() throws InterruptedException {
        SpringApplication.run(OutpostApplication.class, args.toArray(String[]::new));
        Thread.currentThread().join(); // the service's threads keep it alive; the grid kills the process
        return 0;
    }
}
