package io.outpost.server.ui;

import java.time.Duration;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.CacheControl;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The read-only conditions browser at /ui/: static pages and ES modules from classpath:/ui/ that read the native
 * JSON API (/v1/json/…) like any client. The memory-hit valve only looks at /v1/, so these files take the normal
 * servlet path; their own answers are small and few, the API answers they ask for are the cached ones.
 */
@Configuration(proxyBeanMethods = false)
public class UiConfiguration implements WebMvcConfigurer {
    /**
     * Five minutes: the files are not fingerprinted, so a new version must reach browsers and Squids soon after an
     * upgrade; Last-Modified lets them revalidate cheaply after that.
     */
    static final CacheControl FILES = CacheControl.maxAge(Duration.ofMinutes(5)).cachePublic();

    @Override
    public void addResourceHandlers(ResourceHandlerRegistry registry) {
        registry.addResourceHandler("/ui/**").addResourceLocations("classpath:/ui/").setCacheControl(FILES);
    }

    @Override
    public void addViewControllers(ViewControllerRegistry registry) {
        registry.addRedirectViewController("/ui", "/ui/");
        registry.addViewController("/ui/").setViewName("forward:/ui/index.html");
    }

    @Bean
    public FilterRegistrationBean<UiSecurityHeaders> uiSecurityHeaders() {
        FilterRegistrationBean<UiSecurityHeaders> bean = new FilterRegistrationBean<>(new UiSecurityHeaders());
        bean.addUrlPatterns("/ui", "/ui/*");
        return bean;
    }
}
