package io.volrep.benchmarks;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;

/** Renders the curves as PNG charts with XChart (headless). */
final class Charts {
    private static final int WIDTH = 800;
    private static final int HEIGHT = 480;

    static {
        System.setProperty("java.awt.headless", "true");
    }

    /** Put before every title; "development run: " for short runs, whose charts show shapes, not figures. */
    static volatile String titlePrefix = "";

    private Charts() {}

    /** A line chart; {@code series} maps a series name to its y values at {@code x}. */
    static void lines(
            Path file,
            String title,
            String xTitle,
            String yTitle,
            double[] x,
            Map<String, double[]> series,
            boolean logX,
            boolean logY)
            throws IOException {
        XYChart chart = new XYChartBuilder()
                .width(WIDTH)
                .height(HEIGHT)
                .title(titlePrefix + title)
                .xAxisTitle(xTitle)
                .yAxisTitle(yTitle)
                .build();
        XYStyler styler = chart.getStyler();
        styler.setXAxisLogarithmic(logX);
        styler.setYAxisLogarithmic(logY);
        styler.setMarkerSize(7);
        styler.setYAxisDecimalPattern("#,##0.#");
        styler.setXAxisDecimalPattern("#,##0");
        styler.setLegendPosition(Styler.LegendPosition.OutsideS);
        styler.setChartTitleFont(styler.getChartTitleFont().deriveFont(14f));
        series.forEach((name, y) -> chart.addSeries(name, x, y));
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    /** A grouped bar chart: one group per category, one bar per series. */
    static void bars(
            Path file,
            String title,
            String xTitle,
            String yTitle,
            List<String> categories,
            Map<String, List<Double>> series)
            throws IOException {
        CategoryChart chart = new CategoryChartBuilder()
                .width(WIDTH)
                .height(HEIGHT)
                .title(titlePrefix + title)
                .xAxisTitle(xTitle)
                .yAxisTitle(yTitle)
                .build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setYAxisDecimalPattern("#,##0");
        chart.getStyler()
                .setChartTitleFont(chart.getStyler().getChartTitleFont().deriveFont(14f));
        series.forEach((name, values) -> chart.addSeries(name, categories, values));
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
